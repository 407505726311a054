symbolize --no-such-option
