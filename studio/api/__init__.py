"""The HTTP review API served beside the pages, and the ASGI app that serves both."""
