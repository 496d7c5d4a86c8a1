from dataclasses import dataclass


def model(frozen=False):
    def wrap(cls):
        cls.frozen = frozen
        return cls

    return wrap


@dataclass(frozen=True)
class Point:
    x: int

    def shifted(self):
        return Point(self.x + 1)


@model(frozen=True)
class Account:
    def balance(self):
        return 0


Point(1).shifted()
Account().balance()
