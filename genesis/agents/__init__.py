"""The four agents, one file per role. Each skill = a jinja2 prompt template + a pydantic output model."""
