class Grid:
    def __init__(self):
        self.cells = {}

    def __getitem__(self, key):
        return self.cells.get(key)

    def __setitem__(self, key, value):
        self.cells[key] = value

    def __delitem__(self, key):
        self.cells.pop(key)


grid = Grid()
grid[1] = "x"
grid[1]
del grid[1]
