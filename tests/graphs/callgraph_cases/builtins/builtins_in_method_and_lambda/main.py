class Bag:
    def __init__(self, items):
        self.items = items

    def count(self):
        return len(self.items)


largest = lambda xs: max(xs)
bag = Bag([1, 2, 3])
print(largest([bag.count(), 2]))
