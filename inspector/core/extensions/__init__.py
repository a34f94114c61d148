"""Protocol extensions beyond the core spec: MCP Apps and Skills."""
