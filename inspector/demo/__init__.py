"""The embedded demo MCP server: one server that exercises every feature an inspector can show.

Nothing is imported here on purpose: the CLI imports this package on every start, and the SDK
plus Pillow cost far more than the inspector wants to pay when the demo is not being run. Use
`inspector.demo.server.build_server()` / `inspector.demo.server.main()`.
"""
