"""The scripting subcommands: JSON or text out, documented exit codes."""
