"""What crossed the wire, kept: the traffic log, secrets masked out of it, recording files,
replay and latency figures."""
