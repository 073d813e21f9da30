"""The LangGraph generation pipeline: brief -> KB match -> GDD -> rules -> level -> self-evolution."""
