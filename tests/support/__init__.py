"""The test suites' shared doubles and harnesses (the scripted fake models, the fake OpenCode 2.x
server, the real OpenCode and agent launchers, the LSP editor harness, the stdio language-server
client), imported as `support.<module>` by every suite. pytest puts tests/ on the path
(pyproject's `pythonpath`), so no conftest patches sys.path."""
