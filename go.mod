module github.com/stopgate/stopgate

go 1.26
