module cwrap.test/gonet

go 1.19
