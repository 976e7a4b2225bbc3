"""The deploy configuration run for real: nginx in front of two Daphne processes."""
