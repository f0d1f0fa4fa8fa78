# Zonemaster's own texts for the entries type 32 reports (plugins/dns/zonemaster.ts): reads
# {"languages":[...],"entries":[{module,testcase,tag,args}],"testcases":[...]} on stdin and prints
# {"<lang>":{"messages":[...],"testcases":{"<ID>":"..."}}}, each message as the engine's translator
# words it in that language (its sv, da, fi, fr, nb and es catalogues; English is the source). One
# process for every language: the translator reads LANGUAGE at each call.
use strict;
use warnings;
use Encode qw(decode);
use JSON::PP;
use Zonemaster::Engine::Translator;
use Zonemaster::Engine::Logger::Entry;

my $request = JSON::PP->new->utf8->decode( do { local $/; <STDIN> } );
my $translator = Zonemaster::Engine::Translator->new( { locale => 'C.UTF-8' } );
# The catalogues give bytes; JSON wants characters.
my $text = sub { my ($s) = @_; return defined $s && !utf8::is_utf8($s) ? decode( 'UTF-8', $s ) : $s };
my %out;
for my $lang ( @{ $request->{languages} } ) {
    local $ENV{LANGUAGE} = $lang;
    my @messages = map {
        my $entry = Zonemaster::Engine::Logger::Entry->new(
            { module => $_->{module}, testcase => $_->{testcase}, tag => $_->{tag}, args => $_->{args} // {} } );
        $text->( $translator->translate_tag($entry) );
    } @{ $request->{entries} };
    my %testcases = map { ( $_ => $text->( $translator->test_case_description($_) ) ) } @{ $request->{testcases} };
    $out{$lang} = { messages => \@messages, testcases => \%testcases };
}
print JSON::PP->new->utf8->canonical->encode( \%out );
