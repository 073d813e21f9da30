"""`genesis mcp`: scenarios exposed to agents over the Model Context Protocol (stdio)."""
