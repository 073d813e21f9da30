"""`genesis experiment`: the paper's self-evolution experiment (four configurations, one query stream)."""
