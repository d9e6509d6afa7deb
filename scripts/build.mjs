console.log('build placeholder')
