"""The embedded planner: plans from goals offline, by rules over the tools' own words."""
