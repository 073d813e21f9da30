"""Human preference review: a pairwise page over two scenario folders or two experiment
configurations, its results file, an optional model judge, and the per-batch preference rates."""
