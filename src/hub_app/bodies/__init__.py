"""What the hub's requests carry, by feature, the MCP tools' arguments included: typed (attrs) bodies read by one
parser (:mod:`~hub_app.bodies.parsing`) with the API's Russian messages."""
