"""Which server, and how to reach it: ServerSpec, client configuration files, the servers
other clients know, and a call repeated as a command line."""
