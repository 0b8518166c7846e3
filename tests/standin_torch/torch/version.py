cuda = 'standin'
