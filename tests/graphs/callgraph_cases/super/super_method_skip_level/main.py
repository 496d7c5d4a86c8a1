class Base:
    def render(self):
        return "<base>"


class Middle(Base):
    def other(self):
        return 0


class Leaf(Middle):
    def render(self):
        return "[" + super().render() + "]"


Leaf().render()
