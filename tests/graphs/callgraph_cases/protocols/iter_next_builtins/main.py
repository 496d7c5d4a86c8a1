class Ticker:
    def __iter__(self):
        return self

    def __next__(self):
        return 1


it = iter(Ticker())
next(it)
