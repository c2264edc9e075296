"""The OpenCode 1.x host line (`opencode-ai` 1.18), from pure to edge.

- `events`: the pure translation of the event stream (`normalize`, `V1Memory`).
- `identity`: recognising a 1.x server by its `/global/health` body.
- `adapter`: `OpenCodeV1Host`, the `Host` seam (stream, resync, reads, nudge, toast).
- `kilo`: Kilo Code CLI's `kilo serve` (7.x), the same API as host kind `kilo`.
"""
