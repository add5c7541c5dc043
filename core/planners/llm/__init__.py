"""The LLM planner: asks an OpenAI-compatible model for a plan, checks and repairs its reply."""
