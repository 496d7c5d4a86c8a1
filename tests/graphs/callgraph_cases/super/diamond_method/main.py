class Base:
    def render(self):
        return "base"


class Left(Base):
    def render(self):
        return "left " + super().render()


class Right(Base):
    def render(self):
        return "right " + super().render()


class Both(Left, Right):
    def render(self):
        return super().render()


Both().render()
Left().render()
