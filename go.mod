module github.com/vectorlint/vectorlint

go 1.26.8

require github.com/dlclark/regexp2/v2 v2.5.2

require github.com/spf13/pflag v1.0.10
