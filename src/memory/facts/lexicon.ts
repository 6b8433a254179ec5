// Word lists the judge reads facts with: which attributes hold one value at a time, which
// words name an occupation, which name a partner.

/** Occupations: "is a nurse" states a role, "is a fan" does not. Matched on a value's last word. */
export const OCCUPATIONS = new Set(
  `accountant actor actress analyst architect artist assistant attorney baker barista bartender
  biologist bookkeeper builder butcher carpenter cashier ceo cfo chef chemist cleaner clerk coach
  consultant cook coordinator counselor counsellor cto dancer dentist designer detective developer
  director doctor driver economist editor electrician engineer entrepreneur farmer firefighter
  founder gardener geologist hairdresser historian illustrator instructor intern investor janitor
  journalist judge lawyer lecturer librarian lifeguard manager mechanic midwife model musician
  nanny nurse officer optician painter paralegal paramedic pharmacist photographer physician
  physicist physiotherapist pilot plumber poet policeman politician postdoc producer professor
  programmer psychologist psychiatrist realtor receptionist reporter researcher retiree sailor
  salesman salesperson scientist secretary singer soldier student supervisor surgeon tailor teacher
  technician therapist trainer translator tutor veterinarian vet waiter waitress welder writer
  administrator advisor adviser agent auditor ceo copywriter curator dietitian dispatcher economist
  housekeeper inspector interpreter mathematician negotiator nutritionist planner principal
  recruiter representative sculptor specialist statistician strategist teller tester volunteer
  animator astronaut captain chaplain composer conductor contractor courier director
  dermatologist diplomat firefighter freelancer guide lieutenant machinist marketer mentor miner
  minister nurse-practitioner ophthalmologist orthodontist pastor pediatrician priest rabbi
  sergeant sheriff stylist surveyor teaching-assistant undergraduate grad`
    .split(/\s+/)
    .filter((word) => word !== ''),
);

/**
 * Attributes one owner has one of at a time ("my phone number is"): their last word. A
 * favourite of anything is one too, and anything "called" something has one name.
 */
export const SINGLE_ATTRIBUTES = new Set(
  `name nickname surname phone number cell mobile email e-mail address birthday age salary rent
  weight height budget username handle goal anniversary team timezone zip postcode code type
  doctor dentist boss manager landlord therapist trainer coach mentor roommate car bike
  major school university college hometown website blog pronouns language appointment meeting
  flight wedding interview deadline party exam surgery dinner call trip reservation class session
  visit checkup check-up concert recital lesson`
    .split(/\s+/)
    .filter((word) => word !== ''),
);

/** Attribute names said several ways, to one key. */
export const ATTRIBUTE_ALIASES = new Map<string, string>([
  ['phone number', 'phone'],
  ['cell number', 'phone'],
  ['cell phone number', 'phone'],
  ['mobile number', 'phone'],
  ['mobile phone number', 'phone'],
  ['phone', 'phone'],
  ['cell', 'phone'],
  ['mobile', 'phone'],
  ['number', 'phone'],
  ['telephone number', 'phone'],
  ['email', 'email'],
  ['e-mail', 'email'],
  ['email address', 'email'],
  ['e-mail address', 'email'],
  ['home address', 'address'],
  ['favorite', 'favourite'],
  ['date of birth', 'birthday'],
  ['birth date', 'birthday'],
  ['bday', 'birthday'],
]);

/** Attributes that are facts of a kind the judge reads otherwise: "my age is 34" is an age. */
export const ATTRIBUTE_KINDS = new Map<string, string>([
  ['age', 'age'],
  ['birthday', 'born'],
  ['employer', 'employer'],
  ['company', 'employer'],
  ['workplace', 'employer'],
  ['job title', 'role'],
  ['occupation', 'role'],
  ['profession', 'role'],
  ['diet', 'diet'],
  ['car', 'car'],
]);

/** A partner named by an attribute ("her husband is Tom"): the relationship status it implies. */
export const PARTNER_STATUS = new Map<string, string>([
  ['husband', 'married'],
  ['wife', 'married'],
  ['spouse', 'married'],
  ['boyfriend', 'dating'],
  ['girlfriend', 'dating'],
  ['fiance', 'engaged'],
  ['fiancé', 'engaged'],
  ['fiancee', 'engaged'],
  ['fiancée', 'engaged'],
  ['partner', 'partner'],
]);

/** Values that point at something else rather than name it ("likes it"). */
export const EMPTY_VALUES = new Set([
  '',
  'it',
  'that',
  'this',
  'them',
  'him',
  'her',
  'to',
  'there',
  'here',
  'what',
  'one',
  'something',
  'anything',
  'everything',
  'nothing',
  'thing',
]);

/** Values that mean a job, whichever: "quit my job" ends the employer, whoever it was. */
export const JOB_WORDS = new Set(['job', 'position', 'role', 'work', 'company', 'employer']);

/** Leading verbs of an ended value: "stopped working at Google" ended Google. */
export const GERUND_LEADS =
  /^(?:liking|loving|enjoying|eating|drinking|playing|doing|using|working|living|seeing|dating|going|watching|reading|practicing|practising|smoking|wearing|driving)(?: (?:at|for|in|with|to))? /;
