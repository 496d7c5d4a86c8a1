class Tree:
    class Leaf:
        def __init__(self):
            self.size = 1

        def grow(self):
            return self.size + 1

    def __init__(self):
        self.leaf = Tree.Leaf()

    def grow_all(self):
        return self.leaf.grow()


Tree().grow_all()
Tree.Leaf().grow()
