"""The client core: everything that talks to a server, with no Textual and no Rich.

Its packages, by what they are about (ARCHITECTURE.md draws the map):
`protocol` (the session, the client and both eras), `transports`, `auth`,
`record` (the traffic log and what is made of it), `checks` (wire models,
validation, lint, problems), `compare` (diff, matrix, card), `servers` (how a
server is named and reached) and `extensions` (MCP Apps, Skills).  Callers
import a name from the module that defines it.
"""
