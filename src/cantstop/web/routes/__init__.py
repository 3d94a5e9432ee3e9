"""The HTTP and WebSocket routes, one router per job; `create_app` includes them."""
