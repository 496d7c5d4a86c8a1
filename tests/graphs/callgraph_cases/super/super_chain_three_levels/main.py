class A:
    def __init__(self):
        self.log = ["a"]


class B(A):
    def __init__(self):
        super().__init__()
        self.b = 1


class C(B):
    def __init__(self):
        super().__init__()
        self.c = 2


C()
