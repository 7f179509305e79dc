package extractive

// numberWords are the numbers in words, which score as numbers in
// digits do ("three dogs"); "one" is as often a pronoun ("the blue one").
var numberWords = wordSet(`two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
	sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
	million billion dozen once twice`)
