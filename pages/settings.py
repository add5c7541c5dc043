"""Settings: which planner and model this session uses, and where the studio keeps its data."""

from studio import settings_page

settings_page()
