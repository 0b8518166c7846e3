"""torch.nn of the stand-in: a layer whose forward marks the GPU lightly busy."""
from . import Tensor, _set_utilization


class Linear:
    def __init__(self, n_in, n_out):
        self.n = n_in * n_out

    def cuda(self):
        Tensor(self.n, 'cuda')
        _set_utilization(10)
        return self

    def parameters(self):
        return []

    def __call__(self, batch):
        return batch
