"""The OpenCode 2.x host line, from pure to edge.

- `events`: the pure translation of the event stream (`parse_frame`, `normalize`).
- `identity`: recognising a 2.x server by its `/api/info` or `/api/health` body.
- `registration`: the managed service's registration file and the adapter it names.
- `adapter`: `OpenCodeV2Host`, the `Host` seam (stream, resync, reads, nudge).
"""
