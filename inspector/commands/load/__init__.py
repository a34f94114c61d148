"""Load: drive a collection's steps (or one call) at a server under concurrency.

`plan` says what to send and how hard (sessions, rate, duration or count),
`driver` sends it over sessions of our own client core, `stats` counts and
keeps latencies in an HDR histogram, `live` draws progress on a terminal,
`report` writes the final report, and `locustfile` is the same scenario as a
Locust user class for distributed runs.  No UI import at module level: the
live view loads Rich only when it draws.
"""
