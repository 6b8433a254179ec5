// The facts-eval generator's types and its two pools of values (dev and test never share one).

export type Label = 'supersedes' | 'conflicts' | 'none';
export type Split = 'dev' | 'test';

export interface Person {
  S: string;
  be: string;
  have: string;
  Poss: string;
  poss: string;
  s: string;
  es: string;
  does: string;
}

export interface Values {
  name: string;
  other: string;
  city: [string, string];
  company: [string, string];
  job: [string, string];
  food: [string, string];
  partner: [string, string];
  pet: [string, string];
  phone: [string, string];
  email: [string, string];
  colour: [string, string];
  car: [string, string];
  count: [number, number];
  age: number;
}

export type Say = (p: Person, v: Values) => string;

export interface Family {
  kind: string;
  case: string;
  label: Label;
  old: Say[];
  new: Say[];
  days?: number;
}

export const POOLS: Record<Split, Record<string, string[]>> = {
  dev: {
    name: [
      'Caroline',
      'Melanie',
      'Ben',
      'Priya',
      'Tom',
      'Aisha',
      'Lucas',
      'Mei',
      'Omar',
      'Sofia',
      'Jonas',
      'Hannah',
    ],
    city: [
      'Boston',
      'Denver',
      'Lisbon',
      'Austin',
      'Berlin',
      'Toronto',
      'Seattle',
      'Madrid',
      'Portland',
      'Dublin',
      'San Diego',
      'New York',
    ],
    company: [
      'Google',
      'Stripe',
      'Acme Corp',
      'Spotify',
      'Deloitte',
      'Shopify',
      'the city library',
      'Pfizer',
      'Airbnb',
      'Siemens',
    ],
    job: [
      'nurse',
      'teacher',
      'software engineer',
      'accountant',
      'chef',
      'graphic designer',
      'pharmacist',
      'lawyer',
      'barista',
      'data analyst',
    ],
    food: [
      'coffee',
      'sushi',
      'jazz',
      'hiking',
      'spicy food',
      'horror movies',
      'tennis',
      'red wine',
      'chess',
      'country music',
    ],
    partner: ['Daniel', 'Anna', 'Marco', 'Julia', 'Sam', 'Grace', 'Leo', 'Nina'],
    pet: ['Rex', 'Luna', 'Biscuit', 'Max', 'Pepper', 'Milo'],
    colour: ['blue', 'green', 'purple', 'red', 'yellow', 'orange'],
    car: ['Honda Civic', 'Tesla', 'Subaru Outback', 'Ford Focus', 'Volvo'],
  },
  test: {
    name: [
      'Nadia',
      'Carlos',
      'Yuki',
      'Fatima',
      'Ethan',
      'Ingrid',
      'Kwame',
      'Elena',
      'Raj',
      'Zoe',
      'Mateo',
      'Leila',
    ],
    city: [
      'Chicago',
      'Oslo',
      'Nairobi',
      'Melbourne',
      'Kyoto',
      'Vancouver',
      'Atlanta',
      'Prague',
      'Lyon',
      'Cape Town',
      'Mexico City',
      'Edinburgh',
    ],
    company: [
      'Microsoft',
      'Netflix',
      'Unilever',
      'IKEA',
      'Accenture',
      'Canva',
      'the county hospital',
      'Roche',
      'Zalando',
      'Bosch',
    ],
    job: [
      'electrician',
      'dentist',
      'product manager',
      'photographer',
      'architect',
      'physiotherapist',
      'journalist',
      'librarian',
      'pilot',
      'translator',
    ],
    food: [
      'tea',
      'pizza',
      'opera',
      'running',
      'dark chocolate',
      'sci-fi novels',
      'golf',
      'craft beer',
      'poker',
      'techno',
    ],
    partner: ['Hugo', 'Clara', 'Felix', 'Maya', 'Ivan', 'Rosa', 'Theo', 'Lena'],
    pet: ['Bella', 'Oscar', 'Ziggy', 'Coco', 'Toby', 'Nala'],
    colour: ['teal', 'black', 'pink', 'white', 'brown', 'grey'],
    car: ['Toyota Corolla', 'Kia Soul', 'Mini Cooper', 'Audi A4', 'Jeep Wrangler'],
  },
};
