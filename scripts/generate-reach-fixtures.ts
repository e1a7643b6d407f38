/**
 * Writes the lead-outreach stub's provider dataset, server-stubs/reach/fixtures/companies.json:
 * companies with their contacts, drawn by a seeded PRNG so the file is the same on every run.
 * Run once and commit the output: `npx tsx scripts/generate-reach-fixtures.ts`.
 */
import { writeFileSync } from 'node:fs';
import { seededRandom } from './lib/prng.js';

const { random, pick } = seededRandom(20260115);

const prefixes = ['Northwind', 'Contoso', 'Fabrikam', 'Tailspin', 'Litware', 'Adatum', 'Proseware', 'Wingtip', 'Lucerne', 'Margie', 'Alpine', 'Blue Yonder', 'Coho', 'Fourth Coffee', 'Humongous', 'Woodgrove'];
const suffixes = ['Analytics', 'Labs', 'Systems', 'Health', 'Logistics', 'Finance', 'Studios', 'Robotics', 'Energy', 'Foods'];
const industries = ['software', 'fintech', 'healthcare', 'logistics', 'e-commerce', 'manufacturing', 'education', 'media'];
const places = ['Stockholm, Sweden', 'Berlin, Germany', 'London, United Kingdom', 'Paris, France', 'Amsterdam, Netherlands', 'Austin, United States', 'Toronto, Canada', 'Madrid, Spain', 'Oslo, Norway', 'Copenhagen, Denmark'];
const technologies = ['react', 'postgres', 'kubernetes', 'salesforce', 'hubspot', 'shopify', 'python', 'aws', 'stripe', 'snowflake'];
const firstNames = ['Maya', 'Jonas', 'Lea', 'Omar', 'Priya', 'Lukas', 'Sofia', 'Daniel', 'Amara', 'Noah', 'Elin', 'Mateo', 'Hana', 'Felix', 'Zoe', 'Ivan'];
const lastNames = ['Lindqvist', 'Berg', 'Schmidt', 'Haddad', 'Patel', 'Novak', 'Rossi', 'Kim', 'Okafor', 'Meyer', 'Dubois', 'Garcia', 'Sato', 'Nilsen', 'Brown', 'Petrov'];
const titles = ['Head of Growth', 'VP Sales', 'Chief Marketing Officer', 'Founder', 'Head of Operations', 'Sales Director', 'CTO', 'Marketing Manager'];
const headcounts = [8, 25, 45, 120, 180, 350, 800, 2400];

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const seen = new Set<string>();
const companies = [];
while (companies.length < 60) {
  const name = `${pick(prefixes)} ${pick(suffixes)}`;
  if (seen.has(name)) continue;
  seen.add(name);
  const domain = `${slug(name)}.example`;
  const contacts = [];
  const people = new Set<string>();
  while (contacts.length < 4) {
    const first = pick(firstNames);
    const last = pick(lastNames);
    if (people.has(`${first} ${last}`)) continue;
    people.add(`${first} ${last}`);
    contacts.push({ name: `${first} ${last}`, title: pick(titles), email: `${slug(first)}.${slug(last)}@${domain}` });
  }
  const tech = [...new Set([pick(technologies), pick(technologies), pick(technologies)])].sort();
  companies.push({ name, domain, industry: pick(industries), location: pick(places), headcount: pick(headcounts), technologies: tech, contacts });
}

const out = new URL('../server-stubs/reach/fixtures/companies.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(companies, null, 2)}\n`);
console.log(`wrote ${companies.length} companies to ${out.pathname}`);
