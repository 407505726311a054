symbolize a b
