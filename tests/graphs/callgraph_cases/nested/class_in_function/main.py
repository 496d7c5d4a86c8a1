def build():
    class Node:
        def __init__(self, value):
            self.value = value

        def get(self):
            return self.value

    node = Node(1)
    return node.get()


build()
