class Row:
    def render(self):
        return "row"


class Cursor:
    def __init__(self):
        self.left = 1

    def __next__(self):
        if not self.left:
            raise StopIteration
        self.left -= 1
        return Row()


class Table:
    def __iter__(self):
        return Cursor()


for row in Table():
    row.render()
