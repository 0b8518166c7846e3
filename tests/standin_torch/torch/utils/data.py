"""torch.utils.data of the stand-in: a DataLoader whose workers are real
processes (fork) computing the dataset's samples, as PyTorch's are."""
import multiprocessing


class Dataset:
    pass


def _work(dataset, worker, workers, batch_size, queue):
    i = worker
    while True:
        batch = [dataset[k] for k in range(i * batch_size, (i + 1) * batch_size)]
        queue.put(len(batch))
        i += workers


class DataLoader:
    def __init__(self, dataset, batch_size=1, num_workers=0):
        self.dataset, self.batch_size, self.workers = dataset, batch_size, max(num_workers, 1)

    def __iter__(self):
        from .. import Tensor
        ctx = multiprocessing.get_context('fork')
        queue = ctx.Queue(maxsize=4)
        procs = [ctx.Process(target=_work, args=(self.dataset, w, self.workers, self.batch_size,
                                                 queue), daemon=True)
                 for w in range(self.workers)]
        for p in procs:
            p.start()
        try:
            while True:
                yield Tensor(queue.get())
        finally:
            for p in procs:
                p.terminate()
                p.join()
