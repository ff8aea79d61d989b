"""Asking the model: the backends, the batched asking loop, the steps, the response store."""
