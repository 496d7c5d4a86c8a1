class Box:
    def __init__(self, items):
        self.items = items

    def __neg__(self):
        return Box([])

    def __contains__(self, item):
        return item in self.items

    def __len__(self):
        return len(self.items)


box = Box([1, 2])
empty = -box
2 in box
len(box)
