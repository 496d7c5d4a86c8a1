from .base import Animal


class Dog(Animal):
    def bark(self):
        return self.describe()
