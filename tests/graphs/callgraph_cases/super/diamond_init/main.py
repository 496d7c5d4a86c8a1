class A:
    def __init__(self):
        self.trail = ["a"]


class B(A):
    def __init__(self):
        super().__init__()


class C(A):
    def __init__(self):
        super().__init__()


class D(B, C):
    def __init__(self):
        super().__init__()


D()
B()
