"""Findings about what a server sends: the wire models of each revision, message and schema
validation, the lint rules, and the problem records they all produce."""
