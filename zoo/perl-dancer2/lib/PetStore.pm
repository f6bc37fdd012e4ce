package PetStore;
use strict;
use warnings;
use Dancer2;

our $VERSION = '1.0.0';

# In-memory store. Starman runs a single worker (see start.sh), so one
# process owns this hash for the lifetime of the service.
my %pets;
my $next_id = 1;

my %VALID_STATUS = map { $_ => 1 } qw(available pending sold);

sub error_response {
    my ( $http_status, $code, $message ) = @_;
    status $http_status;
    return { code => $code, message => $message, status => $http_status + 0 };
}

prefix '/v1';

# Every operation requires "Authorization: Bearer <API_KEY>".
hook before => sub {
    my $expected = $ENV{API_KEY};
    my $auth     = request->header('Authorization') // '';
    my ($token)  = $auth =~ /^Bearer\s+(\S+)\s*$/;

    unless ( defined $expected && length $expected
        && defined $token && $token eq $expected )
    {
        response_header 'WWW-Authenticate' => 'Bearer';
        halt( error_response( 401, 'unauthorized', 'Missing or invalid API key' ) );
    }
};

# 4.1 listPets
get '/pets' => sub {
    my $limit  = query_parameters->get('limit');
    my $status = query_parameters->get('status');

    if ( defined $limit ) {
        return error_response( 400, 'invalid_limit',
            'limit must be an integer between 1 and 100' )
          unless $limit =~ /^\d+$/ && $limit >= 1 && $limit <= 100;
    }
    else {
        $limit = 20;
    }

    if ( defined $status && !$VALID_STATUS{$status} ) {
        return error_response( 400, 'invalid_status',
            'status must be one of available, pending, sold' );
    }

    my @list = map { $pets{$_} } sort { $a <=> $b } keys %pets;
    @list = grep { defined $_->{status} && $_->{status} eq $status } @list
      if defined $status;
    splice @list, $limit if @list > $limit;

    return \@list;
};

# 4.2 createPet
post '/pets' => sub {
    my $data = request->data;

    return error_response( 400, 'invalid_body', 'Request body must be a JSON object' )
      unless ref $data eq 'HASH';

    my ( $name, $category_id, $status ) = @{$data}{qw(name categoryId status)};

    return error_response( 400, 'invalid_name', 'name is required and must be a non-empty string' )
      unless defined $name && !ref $name && length $name;

    return error_response( 400, 'invalid_category_id', 'categoryId is required and must be an integer' )
      unless defined $category_id && !ref $category_id && $category_id =~ /^-?\d+$/;

    if ( defined $status ) {
        return error_response( 400, 'invalid_status', 'status must be one of available, pending, sold' )
          unless !ref $status && $VALID_STATUS{$status};
    }

    my $pet = {
        id         => $next_id++,
        name       => $name,
        categoryId => $category_id + 0,
        ( defined $status ? ( status => $status ) : () ),
    };
    $pets{ $pet->{id} } = $pet;

    status 201;
    return $pet;
};

# 4.3 getPet (deprecated, removal on 5 December 2030)
get '/pets/:petId' => sub {
    my $id = route_parameters->get('petId');

    return error_response( 404, 'not_found', 'Pet not found' )
      unless $id =~ /^\d+$/ && exists $pets{ $id + 0 };

    response_header 'Deprecation' => 'true';
    response_header 'Sunset'      => 'Thu, 05 Dec 2030 00:00:00 GMT';
    return $pets{ $id + 0 };
};

1;
