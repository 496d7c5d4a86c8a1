class MathUtil:
    @staticmethod
    def square(x):
        return x * x

    @staticmethod
    def cube(x):
        return x * MathUtil.square(x)


MathUtil.square(2)
MathUtil().cube(3)
