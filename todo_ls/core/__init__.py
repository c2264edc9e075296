"""The vocabulary every layer of todo-ls shares, below all of them: the supervisor's event
model (`events`), the injected clock (`clock`) and the count of a session's own list
(`counts`). Plain Python; it imports nothing of todo-ls (docs/architecture.md#layers)."""
