class Root:
    def name(self):
        return "root"

    def base_only(self):
        return 0


class Left(Root):
    pass


class Right(Root):
    def name(self):
        return "right"


class Bottom(Left, Right):
    def show(self):
        return self.name(), self.base_only()


Bottom().show()
Left().name()
