"""Tools: every registered tool, and the functions manual the LLM planner reads."""

from studio import tools_page

tools_page()
