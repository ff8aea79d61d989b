"""Asking the model: the backends, the batched asking loop, the steps, the response store, and
the estimate of what a run will ask."""
