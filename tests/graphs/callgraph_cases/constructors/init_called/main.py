class Counter:
    def __init__(self, start):
        self.value = start


counter = Counter(5)
