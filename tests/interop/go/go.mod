module teaminbox.test/pcmail

go 1.22
