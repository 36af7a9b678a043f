import type { Faker } from '@faker-js/faker';

/**
 * Made-up speech that reads like a work meeting: whole sentences with punctuation, questions
 * answered, names and topics that recur, an opening and a closing line. A partner's UI shows
 * it as it would show a real transcript (screenshots no longer look like word salad), and the
 * same faker seed always gives the same text.
 *
 * One `Meeting` is drawn per audio: its cast and agenda are fixed first, then each segment asks
 * for about as many words as its length holds.
 */
const TOPICS = [
  'the onboarding flow',
  'the pricing page',
  'the mobile release',
  'the customer survey',
  'the quarterly report',
  'the support backlog',
  'the hiring plan',
  'the launch checklist',
  'the budget review',
  'the partner integration',
  'the sync issue on Android',
  'the recording upload',
  'the search results',
  'the design review',
  'the sales forecast',
  'the trial signups',
];
const ACTIONS = ['finish', 'review', 'test', 'ship', 'update', 'simplify', 'document', 'check', 'prioritise'];
const WHEN = [
  'by Friday',
  'next week',
  'before the release',
  'tomorrow morning',
  'this sprint',
  'at the end of the month',
  'after the demo',
];
const MOODS = [
  'better than last time',
  'a bit behind',
  'on track',
  'mixed',
  'really promising',
  'slower than we hoped',
];

const OPENERS = [
  "Okay, let's get started.",
  'Hi everyone, thanks for joining.',
  "Good morning. Let's go through the agenda.",
  'Alright, I think everyone is here.',
];
const CLOSERS = [
  "Okay, that's all for today. Thanks, everyone.",
  "Great, let's wrap up there. Thank you all.",
  'Thanks everyone, talk to you next week.',
];
const ANSWERS = [
  'Sure, I can take that.',
  'Yes, that works for me.',
  'I think so, but let me double-check with {name}.',
  'Not yet, I should have an update {when}.',
  "Good question. I'd say {topic} comes first.",
  'Yes. The numbers for {topic} look {mood}.',
];
const STATEMENTS = [
  "Let's start with {topic}.",
  'I think we should {action} {topic} {when}.',
  'The numbers for {topic} look {mood}.',
  "We're about {percent} percent done with {topic}.",
  "I'll follow up with {name} on {topic}.",
  'Good point. We also need to {action} {topic}.',
  'Last time, {topic} took longer than expected.',
  'That makes sense to me.',
  '{name} shared some feedback on {topic} yesterday.',
  'The main risk is {topic}, so we should {action} it {when}.',
  'I agree with {name}.',
  'Let me share my screen for a second.',
];
const QUESTIONS = [
  '{name}, can you {action} {topic} {when}?',
  'Does anyone have questions about {topic}?',
  'Can we move {topic} to {when}?',
  'What do you think about {topic}, {name}?',
  'Is {topic} still blocked?',
  'Who owns {topic} now?',
];

export interface Meeting {
  names: string[];
  topics: string[];
  /** The last sentence was a question: the next one answers it. */
  asked: boolean;
  started: boolean;
}

export function newMeeting(f: Faker): Meeting {
  const names = f.helpers.uniqueArray(() => f.person.firstName(), 4);
  return { names, topics: f.helpers.arrayElements(TOPICS, 4), asked: false, started: false };
}

const countWords = (s: string) => s.split(/\s+/).filter(Boolean).length;

function fill(f: Faker, m: Meeting, template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    switch (key) {
      case 'name':
        return f.helpers.arrayElement(m.names);
      case 'topic':
        return f.helpers.arrayElement(m.topics);
      case 'action':
        return f.helpers.arrayElement(ACTIONS);
      case 'when':
        return f.helpers.arrayElement(WHEN);
      case 'mood':
        return f.helpers.arrayElement(MOODS);
      default:
        return String(f.number.int({ min: 2, max: 9 }) * 10);
    }
  });
}

/** The next sentence of the meeting: an answer after a question, else a statement or a question. */
function nextSentence(f: Faker, m: Meeting): string {
  if (!m.started) {
    m.started = true;
    return f.helpers.arrayElement(OPENERS);
  }
  if (m.asked) {
    m.asked = false;
    return fill(f, m, f.helpers.arrayElement(ANSWERS));
  }
  m.asked = f.datatype.boolean(0.3);
  return fill(f, m, f.helpers.arrayElement(m.asked ? QUESTIONS : STATEMENTS));
}

/**
 * About `words` words of the meeting, in whole sentences (at least one). `last` ends the
 * meeting: its final sentence is a closing line.
 */
export function meetingSpeech(f: Faker, m: Meeting, words: number, last: boolean): string {
  const out: string[] = [];
  let count = 0;
  do {
    const s = nextSentence(f, m);
    out.push(s);
    count += countWords(s);
  } while (count < words - 3);
  if (last) out[out.length - 1] = f.helpers.arrayElement(CLOSERS);
  return out.join(' ');
}

/** A question ends the text: whoever speaks next is someone else. */
export const endsWithQuestion = (text: string): boolean => text.trimEnd().endsWith('?');
