class Item:
    def show(self):
        return "item"


class Bag:
    def __iter__(self):
        yield Item()
        yield Item()


for item in Bag():
    item.show()
