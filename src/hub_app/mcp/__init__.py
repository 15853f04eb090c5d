"""The MCP door (DESIGN.md section 7): the tools (:mod:`~hub_app.mcp.tools`), the server that lists and calls them
(:mod:`~hub_app.mcp.server`) and the endpoint at ``/mcp`` (:mod:`~hub_app.mcp.endpoint`)."""
